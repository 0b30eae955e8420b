"""谁偷了我的金币 ("Who Stole My Gold", seed 000): rules engine and simulations."""
